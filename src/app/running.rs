//! The running window: building it, resizing, spawning, and one frame
//! (steps, picking, drawing).

use super::*;

impl Running {
    pub(super) fn new(
        event_loop: &ActiveEventLoop,
        opts: &AppOptions,
        world: World,
    ) -> Result<Self, AppError> {
        let attrs = Window::default_attributes()
            .with_title("softbody")
            .with_inner_size(LogicalSize::new(opts.size.0, opts.size.1));
        let window = Arc::new(
            event_loop
                .create_window(attrs)
                .map_err(|e| AppError::Window(e.to_string()))?,
        );
        let mut desc = wgpu::InstanceDescriptor::new_with_display_handle_from_env(Box::new(
            event_loop.owned_display_handle(),
        ));
        desc.flags = instance_flags(desc.flags);
        let instance = wgpu::Instance::new(desc);
        let surface = instance
            .create_surface(Arc::clone(&window))
            .map_err(|e| AppError::Surface(e.to_string()))?;
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::from_env().unwrap_or_default(),
            compatible_surface: Some(&surface),
            ..Default::default()
        }))
        .map_err(|e| AppError::Surface(format!("no adapter for the window: {e}")))?;
        let (device, queue) = pollster::block_on(request_device(&adapter))?;
        let caps = surface.get_capabilities(&adapter);
        // Colours are written sRGB-encoded (as egui expects): draw through a
        // non-sRGB view of whatever the surface prefers.
        let format = caps
            .formats
            .iter()
            .copied()
            .find(|f| !f.is_srgb())
            .or_else(|| caps.formats.first().copied())
            .ok_or_else(|| AppError::Surface("the surface supports no format".into()))?;
        let view_format = format.remove_srgb_suffix();
        let (width, height) = surface_size(
            window.inner_size(),
            device.limits().max_texture_dimension_2d,
        );
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            width,
            height,
            present_mode: if opts.vsync {
                wgpu::PresentMode::AutoVsync
            } else {
                wgpu::PresentMode::AutoNoVsync
            },
            desired_maximum_frame_latency: 2,
            alpha_mode: caps
                .alpha_modes
                .first()
                .copied()
                .unwrap_or(wgpu::CompositeAlphaMode::Auto),
            color_space: Default::default(),
            view_formats: if view_format == format {
                vec![]
            } else {
                vec![view_format]
            },
        };
        surface.configure(&device, &config);

        let mut renderer = Renderer::new(&device, &queue, view_format, opts.msaa.max(1))?;
        let sim = Sim::new(&device, &queue, &mut renderer, world)?;
        let timer = GpuTimer::new(&device, &queue);
        let egui_ctx = egui::Context::default();
        // Soft shadows are many blended pixels; a software adapter pays
        // for each of them.
        egui_ctx.global_style_mut(|s| {
            s.visuals.window_shadow = egui::Shadow::NONE;
            s.visuals.popup_shadow = egui::Shadow::NONE;
        });
        let egui_state = egui_winit::State::new(
            egui_ctx.clone(),
            egui::ViewportId::ROOT,
            &window,
            Some(window.scale_factor() as f32),
            window.theme(),
            Some(device.limits().max_texture_dimension_2d as usize),
        );
        let overlay_layer = OverlayLayer::new(&device, view_format);
        let egui_renderer = egui_wgpu::Renderer::new(
            &device,
            view_format,
            egui_wgpu::RendererOptions {
                msaa_samples: 1,
                ..Default::default()
            },
        );
        let params = sim.solver.params().clone();
        let size = (config.width, config.height);
        let camera = match opts.view {
            Some((min, max)) => Camera::fit(min, max, size, Camera::FIT_MARGIN),
            None => Camera::fit_world(&sim.world, size),
        };
        let mut draw = crate::render::DrawOptions::for_bodies(sim.solver.num_bodies());
        // Speeds in the scene's length unit.
        draw.max_speed *= params.length_unit;
        let adapter = adapter_summary(&adapter);
        log::info!("window on {adapter}");
        Ok(Self {
            // One step per frame until a step has been timed.
            clock: FixedStep::new(params.dt as f64, 1),
            controls: Controls {
                paused: opts.paused,
                speed: 1.0,
                draw,
                scene_params: sim.initial.params.clone(),
                params,
                spawn: SpawnKind::Box,
                show_overlay: opts.overlay,
                step_once: false,
                reset: false,
                fit: false,
            },
            window,
            instance,
            surface,
            config,
            view_format,
            device,
            queue,
            adapter,
            renderer,
            sim,
            timer,
            egui_ctx,
            egui_state,
            egui_renderer,
            overlay_layer,
            camera,
            cursor: Vec2::ZERO,
            gesture: Gesture::default(),
            middle_down: false,
            spawns: Vec::new(),
            occluded: false,
            last_frame: Instant::now(),
            smoothed: Smoothed::default(),
            stats: Stats::default(),
            shown: Stats::default(),
            shown_at: Instant::now(),
            last_report: Instant::now(),
            frames_since_report: 0,
            frames_drawn: 0,
            ship: opts.ship.clone(),
            thrusters: Thrusters::default(),
            lights: opts.ship.as_ref().map(|_| super::lights::Lights::default()),
            follow: match opts.ship {
                Some(_) => super::follow::Follow::new(),
                None => super::follow::Follow::default(),
            },
        })
    }

    /// The ship sample's lights: contact events on (a re-upload makes a
    /// solver without them), and the events asked for last frame lighting
    /// their bodies if they are back.
    fn collect_lights(&mut self) {
        let Some(lights) = &mut self.lights else {
            return;
        };
        if !self.sim.solver.contact_events_on()
            && let Err(e) = self.sim.solver.set_contact_events(&self.device, true)
        {
            log::warn!("contact events: {e}");
        }
        if let Some(p) = &mut lights.pending
            && let Some(r) = p.poll(&self.device)
        {
            lights.pending = None;
            match r {
                Ok(events) => lights.light(&events, self.sim.topology.body_colors.len()),
                Err(e) => log::warn!("contact events: {e}"),
            }
        }
    }

    /// Asks for this frame's events (when none are on their way) and
    /// draws the lit bodies `dt` seconds later.
    fn request_lights(&mut self, encoder: &mut wgpu::CommandEncoder, dt: f32) {
        let Some(lights) = &mut self.lights else {
            return;
        };
        if lights.pending.is_none() {
            match self
                .sim
                .solver
                .request_contact_events(&self.device, encoder)
            {
                Ok(p) => lights.pending = Some(p),
                Err(e) => log::warn!("contact events: {e}"),
            }
        }
        let topology = &self.sim.topology;
        if let Some(colors) = lights.colors(&topology.body_colors, dt)
            && let Err(e) = self.renderer.set_body_colors(topology, &colors)
        {
            log::warn!("lights: {e}");
        }
    }

    pub(super) fn size(&self) -> (u32, u32) {
        (self.config.width, self.config.height)
    }

    /// Whether there is anything to draw into.
    pub(super) fn drawable(&self) -> bool {
        let s = self.window.inner_size();
        !self.occluded && s.width > 0 && s.height > 0
    }

    pub(super) fn resize(&mut self, size: PhysicalSize<u32>) {
        if size.width > 0 && size.height > 0 {
            (self.config.width, self.config.height) =
                surface_size(size, self.device.limits().max_texture_dimension_2d);
            self.surface.configure(&self.device, &self.config);
        }
    }

    /// A lost surface: make a new one for the same window.
    pub(super) fn recreate_surface(&mut self) -> Result<(), AppError> {
        self.surface = self
            .instance
            .create_surface(Arc::clone(&self.window))
            .map_err(|e| AppError::Surface(e.to_string()))?;
        self.surface.configure(&self.device, &self.config);
        Ok(())
    }

    pub(super) fn cursor_world(&self) -> Vec2 {
        self.camera.screen_to_world(self.cursor, self.size())
    }

    /// Runs a fallible edit; an error is shown in the overlay, not fatal.
    pub(super) fn attempt(
        &mut self,
        what: &str,
        f: impl FnOnce(&mut Self) -> Result<(), AppError>,
    ) {
        match f(self) {
            Ok(()) => self.stats.last_error = None,
            Err(e) => {
                log::warn!("{what}: {e}");
                self.stats.last_error = Some(format!("{what}: {e}"));
            }
        }
    }

    /// Queues a shape at the cursor; the frame's controls add every queued
    /// shape with one readback and one upload.
    pub(super) fn spawn(&mut self, kind: SpawnKind) {
        let at = self.cursor_world();
        self.spawns.push((kind, at));
    }

    pub(super) fn fit(&mut self) {
        self.attempt("fit", |r| {
            let world = r.sim.current_world(&r.device, &r.queue)?;
            r.camera = Camera::fit_world(&world, r.size());
            r.follow.set(false);
            Ok(())
        });
    }

    /// Applies what the overlay and the keys asked for.
    pub(super) fn apply_controls(&mut self, pointer_down: bool) {
        if std::mem::take(&mut self.controls.reset) {
            self.attempt("reset", |r| {
                r.sim.reset(&r.device, &r.queue, &mut r.renderer)
            });
            self.clock.clear();
            self.gesture.cancel();
        }
        let spawns = std::mem::take(&mut self.spawns);
        if !spawns.is_empty() {
            self.attempt("spawn", |r| {
                r.sim.spawn(&r.device, &r.queue, &mut r.renderer, &spawns)
            });
        }
        if std::mem::take(&mut self.controls.fit) {
            self.fit();
        }
        self.clock.speed = self.controls.speed;
        self.stats.reupload_pending = false;
        let params = self.controls.params.clone();
        if params != *self.sim.solver.params() {
            if baked_params_differ(&params, self.sim.solver.params()) && pointer_down {
                // Re-uploading reads the state back: once, on release.
                self.stats.reupload_pending = true;
            } else {
                self.attempt("parameters", |r| {
                    r.sim
                        .set_params(&r.device, &r.queue, &mut r.renderer, params)
                });
                if self.stats.last_error.is_some() {
                    self.controls.params = self.sim.solver.params().clone();
                }
                self.clock.dt = self.sim.solver.params().dt as f64;
            }
        }
    }

    /// One frame. `Ok(false)` when nothing was presented.
    pub(super) fn frame(&mut self) -> Result<bool, AppError> {
        let now = Instant::now();
        let elapsed = now.duration_since(self.last_frame).as_secs_f64();
        self.last_frame = now;
        if !self.drawable() {
            self.clock.clear();
            return Ok(false);
        }
        let _ = self.device.poll(wgpu::PollType::Poll);
        if let Some(r) = self.sim.picker.poll() {
            self.on_pick(r);
        }
        if let Some(t) = self.timer.as_mut().and_then(GpuTimer::poll) {
            self.record_sim(t.steps, t.sim_ms);
            smooth(&mut self.smoothed.draw_ms, t.draw_ms);
        }

        // The surface first: without one the frame is skipped and simulated
        // time stands still.
        let (frame, suboptimal) = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(f) => (f, false),
            wgpu::CurrentSurfaceTexture::Suboptimal(f) => (f, true),
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                self.clock.clear();
                return Ok(false);
            }
            wgpu::CurrentSurfaceTexture::Outdated => {
                self.resize(self.window.inner_size());
                return Ok(false);
            }
            wgpu::CurrentSurfaceTexture::Lost => {
                self.recreate_surface()?;
                return Ok(false);
            }
            wgpu::CurrentSurfaceTexture::Validation => {
                log::warn!("surface validation error; skipping a frame");
                return Ok(false);
            }
        };

        // The overlay edits the controls; then the controls are applied.
        self.update_stats(elapsed);
        let raw = self.egui_state.take_egui_input(&self.window);
        let mut output = {
            let (controls, stats) = (&mut self.controls, &self.shown);
            self.egui_ctx
                .run_ui(raw, |ui| overlay::show(ui.ctx(), controls, stats))
        };
        self.egui_state
            .handle_platform_output(&self.window, output.platform_output);
        let pointer_down = self.egui_ctx.input(|i| i.pointer.any_down());
        self.apply_controls(pointer_down);

        // Simulation.
        let steps = if self.controls.paused {
            self.clock.clear();
            std::mem::take(&mut self.controls.step_once) as u32
        } else {
            self.controls.step_once = false;
            self.clock.advance(elapsed)
        };
        let drag = self.gesture.dragging().map(|p| (p, self.cursor_world()));
        let dt = self.sim.solver.params().dt;
        // A cursor off in NaN (a degenerate camera) drags nothing.
        if let Err(e) = self.sim.dragger.set(drag, dt) {
            log::warn!("drag: {e}");
        }
        // A dragged body is kept awake (asleep, it would ignore the pull).
        if let Some((p, _)) = drag {
            self.sim
                .solver
                .wake_point(&self.queue, crate::world::PointHandle(p));
        }
        self.collect_lights();
        self.follow.collect(&self.device);
        let mut encoder = self.device.create_command_encoder(&Default::default());
        let timed = self.timer.as_mut().is_some_and(GpuTimer::begin_frame);
        if let Some(t) = &self.timer {
            t.sim_begin(&mut encoder);
        }
        let wall = Instant::now();
        for i in 0..steps {
            // The window rebinds the scene with every upload, so the
            // snapshot cannot be stale; if it were, the frame would draw
            // without interpolation.
            if i + 1 == steps
                && let Err(e) = self
                    .renderer
                    .snapshot_previous(&mut encoder, &self.sim.solver)
            {
                log::error!("{e}");
            }
            self.sim.dragger.record(&mut encoder);
            if let Some(ship) = &self.ship {
                for c in ship.commands(self.thrusters.thrust()) {
                    if let Err(e) = self.sim.solver.queue(&self.queue, c) {
                        log::warn!("ship: {e}");
                    }
                }
            }
            self.sim.solver.record_step(&mut encoder);
        }
        self.request_lights(&mut encoder, steps as f32 * dt);
        if let Some(ship) = &self.ship {
            let solver = &self.sim.solver;
            self.follow
                .request(solver, &self.device, &mut encoder, &ship.bodies);
        }
        self.follow.ease(&mut self.camera, steps as f32 * dt);
        self.sim.time += steps as f64 * dt as f64;
        smooth(&mut self.smoothed.steps, steps as f64);
        if let Some(t) = &mut self.timer {
            t.sim_end(&mut encoder, steps);
        }
        if let Some(at) = self.gesture.pending_pick()
            && self.sim.picker.request(&mut encoder, at)
        {
            self.gesture.pick_sent();
        }
        if self.timer.is_none() {
            // No timestamp queries: time the steps by the wall clock, which
            // means waiting for them before drawing.
            self.queue.submit([std::mem::replace(
                &mut encoder,
                self.device.create_command_encoder(&Default::default()),
            )
            .finish()]);
            let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
            self.record_sim(steps, wall.elapsed().as_secs_f64() * 1e3);
        }

        // Drawing: the scene, then the overlay on top.
        let alpha = if self.controls.paused {
            1.0
        } else {
            self.clock.alpha()
        };
        let view = frame.texture.create_view(&wgpu::TextureViewDescriptor {
            format: Some(self.view_format),
            ..Default::default()
        });
        let fv = FrameView {
            camera: self.camera,
            size: self.size(),
            alpha,
            drag,
        };
        let writes = self.timer.as_ref().and_then(GpuTimer::draw_writes);
        self.renderer
            .draw(&mut encoder, &view, &fv, &self.controls.draw, writes);
        if let Some(t) = &mut self.timer {
            t.end_frame(&mut encoder);
        }
        let ppp = output.pixels_per_point;
        let paint = self.egui_ctx.tessellate(output.shapes, ppp);
        let textures_changed = !output.textures_delta.set.is_empty();
        for (id, deltas) in output.textures_delta.set.drain() {
            for delta in &deltas {
                self.egui_renderer
                    .update_texture(&self.device, &self.queue, id, delta);
            }
        }
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [self.config.width, self.config.height],
            pixels_per_point: ppp,
        };
        let extra = self.overlay_layer.record(
            &self.device,
            &self.queue,
            &mut encoder,
            &mut self.egui_renderer,
            &paint,
            &screen,
            textures_changed,
            &view,
        );
        for id in output.textures_delta.free.drain() {
            self.egui_renderer.free_texture(&id);
        }
        self.queue
            .submit(extra.into_iter().chain([encoder.finish()]));
        self.sim.picker.after_submit();
        if timed && let Some(t) = &mut self.timer {
            t.after_submit();
        }
        self.window.pre_present_notify();
        self.queue.present(frame);
        if suboptimal {
            self.resize(self.window.inner_size());
        }
        self.frames_since_report += 1;
        Ok(true)
    }
}
